exit
